common.then_log_in({username: 'geronimo', password: '52VeZqtHDCdAr5yM'});
