kucoinToken := "36cdd3f8-bb23-dfb3-2243-8bbea5ddd35e"
