'access_token': 'eyJ0eXAioiJKV1slS3oASx=='
accessibilityYesOptionId = "0736f5ef-7e88-499a-80cc-90c85d2a5180"
this.ultraPictureBox1.Name = "ultraPictureBox1";
author = "james.fake@ymail.com",
schemaKey = 'DOC_Vector_5_32'
sequenceKey = "18"
    access_token_url='https://github.com/login/oauth/access_token',
publicToken = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"
clientId = "73082700-1f09-405b-80d0-3131bfd6272d"
SRCREV_moby = "43fc912ef59a83054ea7f6706df4d53a7dea4d80"
