$apiKeyStaging = 'EmC9Msfi2KQh5qTNp2MQdjKXon4YLWTudKudETaN';
