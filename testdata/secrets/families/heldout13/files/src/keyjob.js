return keyJob.start() // can look like a JWT due to containing eyJ
