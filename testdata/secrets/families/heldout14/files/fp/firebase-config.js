const firebaseConfig = {
  apiKey: 'AIzagoQG6r7cqdfalh6iCFwjYNzdgJ7gSyUfqcs',
  authDomain: 'shop-42.firebaseapp.com',
  projectId: 'shop-42',
};
