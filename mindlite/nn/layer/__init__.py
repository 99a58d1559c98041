"""nn.layer"""
