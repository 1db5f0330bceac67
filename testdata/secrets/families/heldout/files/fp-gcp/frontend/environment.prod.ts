export const environment = {
  production: true,
  firebase: {
    apiKey: 'AIzabTo52de4V3i-yI7AmeNUd_O5-8-8xJezDu4',
    authDomain: 'tickets-8812.firebaseapp.com',
    storageBucket: 'tickets-8812.appspot.com',
  },
};
