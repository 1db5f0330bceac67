<?php
                //$google_client_id     = '244082345999-o6m8f1pmb1e76tjfj9v7b96j31e53ps5.apps.googleusercontent.com';
                 //$google_client_secret = 'fnhqAakzWrX-mtFQ4PRdMoy0';
