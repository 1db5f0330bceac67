"aws-kms://arn:aws:kms:us-east-1:003084325827:key/84a66985-f968-4bac-82c2-365518adf157";
return f"arn:aws:s3:::${bucket_name}"
