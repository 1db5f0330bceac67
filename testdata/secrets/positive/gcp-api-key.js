const firebaseConfig = {
  apiKey: "AIzakFpvdZt2mUenFabzHf0Ej1jmw8afPQfKaCI",
  authDomain: "shop-prod.firebaseapp.com",
};
