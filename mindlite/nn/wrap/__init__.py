"""nn.wrap"""
