export const mail = {
  postmark: {
    fromEmail: 'ops@shop.io', // must be verified with postmarkapp.com
    postmarkApiToken: '00917922-dbe7-4882-bedc-10b93fc4c4c5', // our account token
  },
};
