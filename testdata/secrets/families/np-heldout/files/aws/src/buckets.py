def bucket_arn(bucket_name):
    return f"arn:aws:s3:::{bucket_name}"
