const apiKey = "AIzaSyXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX";
const short = "AIzaZSlB5er8bO";
