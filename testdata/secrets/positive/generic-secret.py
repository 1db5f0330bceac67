# Django settings
SECRET_KEY = "1r4NHi/iHCHlAOkfezkziSSEit/AipXbs7KErWrQ"
DEBUG = False
