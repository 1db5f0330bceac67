beta => {
  host            => 'foo.example.com',
  user            => 'joe',
  password        => 'thisismypassword',
}
