import { initializeApp } from "firebase/app";
const firebaseConfig = {
  apiKey: "AIzaZ6yjKaFbM9nruth8tjkKyYxmJ5BLxxlOzuJ",
  authDomain: "shop-prod-4711.firebaseapp.com",
  projectId: "shop-prod-4711",
  messagingSenderId: "918273645501",
  appId: "1:918273645501:web:8c1d2e3f4a5b6c7d",
};
