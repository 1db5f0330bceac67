gitlabToken = "glrt-t4_28noteim3twhsm4g91niebbxper.2ae0s3ydf"
