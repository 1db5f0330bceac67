FLICKR_TOKEN = "1o8j9r08xzb71rrjbmoq6skxsvy5jxss"
