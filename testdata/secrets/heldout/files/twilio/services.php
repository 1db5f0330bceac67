<?php
return [
    // https://www.twilio.com/console/video/dev-tools/api-keys
    'API'              => env('TWILIO_API','SK6e84981d07ace5c9df33e1ab043a2fb2'),
    'API_KEY'          => env('TWILIO_API_KEY', 'wbTs1SUt6Aace5eKeNCxuYvJa6PhaRd0')
];
