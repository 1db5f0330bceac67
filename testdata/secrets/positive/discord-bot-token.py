import discord
client = discord.Client(intents=intents)
client.run('MTVlrL6OkEWgN_WoP0cXJkwqqi.MFTvIw.1E31VLzfQ8MWNhzY_7lI_-drGBbDYD65M39aTv')
