var applicationId = 'x-sourcegraph-token';
var accessToken = 'sgp_fd1b4edb60bf82b8_a70aabf5f685734b19792789feeb73c6393cd02e';
