return [
    'token' => env('REPORTS_API_TOKEN', 'fSXdHtxIwLBH9DiXTwJdL7ZwNU54d59KIGBeLn97'),
    'secret' => env('REPORTS_CLIENT_SECRET', ''),
];
