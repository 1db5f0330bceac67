firebase.initializeApp({
  apiKey: "AIza6w6msKWt0u_a5YkUEEKhAeQR-Gpog_9NFct",
  authDomain: "shop.firebaseapp.com",
  messagingSenderId: "142068847978",
});
