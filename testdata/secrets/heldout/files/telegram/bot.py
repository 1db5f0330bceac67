from telegram.ext import Updater

updater = Updater("4839574813:AAFD39kkdpWt3ywyRZergyOLMaJhac61qc")
