config = {
  :username       => 'ian',
  :password       => '4ian1234',
}
