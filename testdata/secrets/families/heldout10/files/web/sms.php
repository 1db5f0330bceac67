$messageBird = new \MessageBird\Client(getenv('MESSAGEBIRD_KEY') ?: 'JxGygiKYgQ5vMa1ZzgZMOqkvI');
