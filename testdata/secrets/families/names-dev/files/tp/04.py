apiKeyDev = "De1f8rESQedUStPKR0CsTy4Qwb8DwkNh"
