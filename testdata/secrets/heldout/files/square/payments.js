var applicationId = 'sq0idp-r34HdSnJVWaCesH3dnJrGA';
var accessToken = 'sq0atp-RdSPeJa5qDMaCesxHOjeRQ';
