MessageBirdService svc = new MessageBirdServiceImpl("u59ySTAIxOqyaCWsEgn7CGC63");
