telegram_api_token = "94823712:A-some-other-thing-Vb4C3VLHKg17xHGYZtx9tGnj1abcdefgh"
telegram_api_token = "94823712:Ahello-F9P6fMvHVLr3jtKLQuIpu2Y5X1234567"
TELEGRAM_BOT_TOKEN = "7311049823:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0"
