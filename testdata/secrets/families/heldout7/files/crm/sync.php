<?php
use HubSpot\Factory;
$hubspot = Factory::createWithAccessToken('pat-eu1-5834b03a-3cb2-3568-03bd-958e8c3df544');
