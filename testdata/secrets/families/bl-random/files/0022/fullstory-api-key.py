fullstoryToken = "na1.rgwa5ut5cpwnvct61hoeqm11onts756m"
