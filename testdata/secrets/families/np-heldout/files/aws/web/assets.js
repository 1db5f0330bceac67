const legacy = 'http://bucket.s3-us-east-2.amazonaws.com';
const encoded = 'http%2F%2Fsome-bucket.s3.amazonaws.com';
const pathStyle = 's3.amazonaws.com/example-bucket';
const pathStyleRegion = 'http://s3-us-east-2.amazonaws.com/example-bucket';
const object = 'some-bucket.s3.amazonaws.com/some-object-here';
const keyed = 'some-bucket-name.s3.amazonaws.com/171ea24dd241f8a2178b0374-username-Reponame-3-0';
