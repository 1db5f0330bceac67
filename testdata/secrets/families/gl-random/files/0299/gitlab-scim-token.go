gitlabToken := "glsoat-y7n5qk7sp5umf26ww9jk"
