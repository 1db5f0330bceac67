$fb = new \Facebook\Facebook([
  'app_id' => '213616350904989',
  'app_secret' => '9b897b3860d67474f30c2efdf160d841',
  'default_graph_version' => 'v19.0',
]);
