<?php
$messageBird = new \MessageBird\Client('SMwU1Fts1ucKkuLUd4y6d7va3');
