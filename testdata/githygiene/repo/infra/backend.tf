terraform { backend "s3" {} }
