class AuthFilterTest {
  static final String ADMIN = "eyJ0eXAiOiJKV1QiLA0KImFsZyI6IkhTMjU2In0.eyJzdWIiOiJhZG1pbi1qZ2F1Z24iLCJpYXQiOjE3MTgwMDAwMDB9.ykFuybpg8pCHY0phSiFSEST1rDjrC7zKIlAI3m7pEyQ";
}
