<?php
$fb = new \Facebook\Facebook(['app_id' => '195576637970817', 'default_graph_version' => 'v19.0']);
$fb->setDefaultAccessToken('EAAGJfowGijH6eCmRBQIETU0NteIXd7T0gsVf3ZK9gE3Qdh6x9cSywiZF5iB8YSsGJsUkuVByDXFeZdfcbEv3RtqTg6ivHfUkXXmKpa2HVC9tXTt4sfDWbVUpeWxYY0Z41xhb1NzNHXCAFqFl0G42zGnJHreq3OANO8W');
