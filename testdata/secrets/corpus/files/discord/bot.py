import discord
TOKEN = "MTHZcBBzlVaKOr1R5ewxdNEKYG.uz5jwg.kyia9y5Z4ZN1rCpiVBuL9P-t-HRfvnBttuOaSh"
