MessageBirdService svc = new MessageBirdServiceImpl("DL365cvZIoqbci3xUOUC9Jidl");
