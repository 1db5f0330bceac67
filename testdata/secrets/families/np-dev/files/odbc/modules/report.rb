if datastore['VERBOSE']
      text  = ''
      text << "User=#{username}, "
      text << "Domain=#{domain}, "
      text << "Full Name=#{full_name}, "
      text << "E-mail=#{e_mail}"
      print_good(text)
end
