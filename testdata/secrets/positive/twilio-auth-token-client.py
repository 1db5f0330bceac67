from twilio.rest import Client
client = Client("AC3c3727bcf081d4c9ca40bbf91d0a440c", "718b654ec8875de7e8307a400bf66d64")
