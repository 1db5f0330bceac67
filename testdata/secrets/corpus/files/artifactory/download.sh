curl -H "Authorization: Bearer cmVmdGtu0xkGPw8OOKWPmkTdjG9GFfD0ROVJdLxdrUq4Ri8g6jvxsHVEfIrvlAQF" -O https://jfrog.internal/artifactory/libs/app.jar
