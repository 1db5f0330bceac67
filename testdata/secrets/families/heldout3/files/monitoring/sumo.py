from sumologic import SumoLogic
sumo = SumoLogic("su31Sx4LQXFyXH", "ideiFoVvo5hPuOL5ttXspda2YK2JCdiCrerE0zgujUDH9eiPLmMo99QPGYKMmHhp")
