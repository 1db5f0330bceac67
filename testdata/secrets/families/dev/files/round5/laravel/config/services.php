<?php
$client = new \MessageBird\Client("f8mjVt1fVltfw6U793QEIyyGz");
$client = new \MessageBird\Client(env('MESSAGEBIRD_KEY'));
