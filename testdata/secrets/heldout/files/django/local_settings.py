# SECURITY WARNING: keep the secret key used in production secret!
SECRET_KEY = 'hmm'
