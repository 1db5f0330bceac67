	client := messagebird.New("yJYpEwiZRleqPCtIzJrO7nsoi")
