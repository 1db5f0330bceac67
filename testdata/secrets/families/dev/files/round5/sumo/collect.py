access_id = os.environ["SUMO_ACCESS_ID"]
client = SumoLogic(access_id, "otJkCntOi0STA0ELMVgz0Q5fqd0SSqturifMAYCFFeEqJwhrozJBELlOrdpZOUw1")
