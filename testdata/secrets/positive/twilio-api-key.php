<?php
$apiKey = 'SK4c393aff881cdae03b8b06373485ea2a';
