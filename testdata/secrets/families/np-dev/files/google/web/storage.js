const host = 'c.storage.googleapis.com';
const host2 = 'some-bucket.example.com.storage.googleapis.com';
const root = 'https://storage.googleapis.com';
const obj = 'c.storage.googleapis.com/some_object';
const obj2 = 'https://storage.googleapis.com/bucket_name/object_name';
