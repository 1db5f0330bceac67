module.exports = {
                 'clientID' : '231545488769-4d1mcev9vifvlncrern52id2pqqf5u5l.apps.googleusercontent.com',
                'clientSecret' : 'Ufvuj-d6alhwGKvvLh_8Nq0K'
};
