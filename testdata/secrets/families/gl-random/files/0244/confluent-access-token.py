confluentToken = "xcme7u9mh1gic9v9"
