import { initializeApp } from "firebase/app";
const firebaseConfig = {
  apiKey: "AIzaeQZy8cId62uPK131Cokafd_nM33MjyKLVdX",
  authDomain: "shop-prod.firebaseapp.com",
  projectId: "shop-prod",
};
