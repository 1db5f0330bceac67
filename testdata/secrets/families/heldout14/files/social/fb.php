<?php
$fb = new Facebook\Facebook([
  'app_id' => '834750590119963',
  'app_secret' => '890d1c190aead0f8cda44b753cdcc5e7',
  'default_graph_version' => 'v19.0',
]);
