stripeKeyLive = "ZEG8pSH4487q7J58m1CiAhzCueQpBenQ"
