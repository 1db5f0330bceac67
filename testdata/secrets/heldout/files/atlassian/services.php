<?php
return [
    'jira' => [
        'host' => env('JIRA_HOST', 'https://example.net'),
        'secret' => env('JIRA_SECRET'),
        'token' => env('JIRA_API_TOKEN', 'ATATT3xFfGF0Hv2D5CyGjDnjGL5j9medBUqpDdy923KtUnA3BBICVROxYboITpzmWeDhIeFvj-noomSdyaPSaigvQ4QZg8EN_mfJqQ-gAI4swknj2HDYa2pNROqqvuzWn4HkpIPjQ0Z8MAMOPv5U0QtygZbxhUG73VMwzmlHEAM4Wiv_lS2pCKo=569C722C'),
    ],
];
