message_birdToken = "h95uqzswwzj64rqauymsknsvm"
